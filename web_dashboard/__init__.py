"""The phone dashboard: a Flask app following the table."""
