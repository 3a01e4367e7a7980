"""hardware_sim package."""
