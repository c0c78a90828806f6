"""The benchmark engine, one for every communication model:

- constants: its rules (sustained, client-bound, grace times), each in one place;
- cells: one measured cell (N clients or subscribers against a server or publisher),
  its one outcome type and one judge;
- session: a run in the store, its working directory, PKI and servers;
- search: sweeps, the capacity search and the headroom experiment as plain functions;
- pubsub: the PubSub scenarios on cells and search;
- adapters: the first check of a suite (the adapters answer as they declare);
- estimate: a plan's duration before it runs."""
