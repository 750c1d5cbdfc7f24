"""Referee and orchestration for briscola-table."""
