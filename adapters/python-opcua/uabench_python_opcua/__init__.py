"""uabench adapter for python-opcua (FreeOpcUa's synchronous `opcua` package)."""

import importlib.metadata

SDK_ID = "python-opcua"
LANGUAGE = "Python"
ROLES = ["server", "client"]
WORKLOADS = ["read", "write", "subscribe"]

# The library implements Basic128Rsa15, Basic256 and Basic256Sha256 on the client but its
# server only offers Basic256Sha256; neither side has the Aes* policies.
SECURITY = [
    {"policy": "None", "mode": "None"},
    {"policy": "Basic256Sha256", "mode": "Sign"},
    {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"},
]


def sdk_version() -> str:
    """The version of the opcua package actually importable, not a copied constant."""
    return importlib.metadata.version("opcua")
