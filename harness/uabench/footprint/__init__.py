"""The footprint suite: a server's start-up and its memory per session, subscription and monitored
item, and its client's (plan.py: the points; runner.py: each point a server process of its own;
memory.py and heap.py: what is read of them)."""
