"""Jantaku scoring: the pure engine (tiles, hands, games, settlement). No I/O here."""
