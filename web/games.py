"""Domain service for players, tables, rule sets and games (being filled in)."""
