"""Container engines (docker, podman) behind the commands that build and run adapter images."""
