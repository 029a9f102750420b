"""Answerer and judge backends behind one small protocol: the stub, HTTP providers, the user's own system."""
