"""Edge-type programs (installed as worlddb.handlers)."""
