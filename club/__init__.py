"""The club's domain: games and their log, players, tables and rule sets, the
floor, money, ratings and standings, export and backup. No Flask views live here."""
