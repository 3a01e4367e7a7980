"""tablectl package."""
