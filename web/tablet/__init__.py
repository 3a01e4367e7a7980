"""The tablet at each table (being filled in)."""

from flask import Blueprint

bp = Blueprint("tablet", __name__, url_prefix="/tablet", template_folder="templates")
