"""Container engines (docker, podman) behind the commands that build and run adapter images:
engine (the engine commands), images (`uabench images`: the image of each SDK per architecture),
isolation (`--isolation container`: a run's roles in those images)."""
