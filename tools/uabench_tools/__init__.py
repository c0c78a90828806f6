"""uabench's tools that speak OPC UA themselves, in their own environment (tools/README.md)."""
