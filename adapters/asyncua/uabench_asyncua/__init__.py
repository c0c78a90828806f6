"""uabench adapter for the asyncua OPC UA SDK."""
