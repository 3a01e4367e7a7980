"""A chain of clubs: each box sends its records to a head office on PostgreSQL.

``pg_schema`` is the head office's schema (schema ``chain``, numbered migrations) and
``sync`` the box's side (its change log, fed by SQLite triggers, and the sync itself).
psycopg (the ``chain`` extra) is imported only inside these modules' functions, so a box
without it works as before.
"""
