"""The chain's head office: its own program for the chain's owner and managers
(``python -m headoffice``), its pages over PostgreSQL, its sign-in and its refresher.

Its app and views are in :mod:`headoffice.views`; every question it asks is
:mod:`chain.ho_questions`'s.
"""

from headoffice.views import bp, create_app

__all__ = ["bp", "create_app"]
