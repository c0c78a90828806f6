"""Emulated network paths, below the engine: the network profiles (profiles.py: ethernet, wifi,
3g … as TOML, suites/networks/) and a path shaped by one between two hosts of this machine
(path.py: network namespaces, a veth pair or bridge, tbf/htb, iptables loss, toxiproxy). The
engine's cells run over them, and the network, resilience and PubSub suites choose them."""
