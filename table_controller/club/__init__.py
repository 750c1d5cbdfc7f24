"""The club: many tables on one MQTT broker (Mosquitto), and the club's view of them.

``publisher``: a table publishes what its phones may see, its finished hands and match
results (from the store's outbox), in a background thread that the table never waits
on. ``view``: the club's subscriber, which keeps every table's live state and one copy
of each finished hand. ``cli``: ``briscola-table club``. Topics::

    briscola/<club>/<table>/status          online | offline (retained; the will)
    briscola/<club>/<table>/state           the public table state (retained)
    briscola/<club>/<table>/hands/<m>-<h>   a finished hand (QoS 1, idempotent key)
    briscola/<club>/<table>/matches/<m>     a finished match's result (idem)
"""
