"""Staff sign-in (stub)."""

from flask import Blueprint

bp = Blueprint("auth", __name__, url_prefix="/auth")
