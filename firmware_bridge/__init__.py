"""Serial link to the table's microcontroller, GPIO indicators and displays."""
