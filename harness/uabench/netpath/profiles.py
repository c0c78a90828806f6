"""Network profiles: named, documented data (suites/networks/NAME.toml) saying what a path
between client and server adds to the veth pair that joins their namespaces: delay and jitter
(toxiproxy's latency toxic, one way, each direction), bandwidth (tbf, each direction) and loss
(iptables statistic, each direction). Every key is checked; a mistake names the file and key."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from uabench import paths

NETWORKS = paths.SUITES / "networks"
KEYS = {
    "name",
    "description",
    "proxy",
    "delay_ms",
    "jitter_ms",
    "up_kbit",
    "down_kbit",
    "loss_percent",
    "paper",
}


class ProfileError(ValueError):
    pass


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    proxy: bool = False  # toxiproxy on the path (its latency toxic only when delay or jitter > 0)
    delay_ms: int = 0  # one way, each direction (toxiproxy: whole milliseconds)
    jitter_ms: int = 0  # uniform ± around delay_ms, per chunk (toxiproxy's rule)
    up_kbit: int | None = None  # client → server; None: not limited
    down_kbit: int | None = None
    loss_percent: float = 0.0  # each direction
    paper: str | None = None  # the test environment of Nakutis et al. (Table II) it stands for

    @property
    def shaped(self) -> bool:
        return bool(self.up_kbit or self.down_kbit or self.loss_percent)

    def summary(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "proxy": self.proxy,
            "delay_ms": self.delay_ms,
            "jitter_ms": self.jitter_ms,
            "up_kbit": self.up_kbit,
            "down_kbit": self.down_kbit,
            "loss_percent": self.loss_percent,
            "paper": self.paper,
        }


def names() -> list[str]:
    return sorted(path.stem for path in NETWORKS.glob("*.toml"))


def load(name: str) -> Profile:
    """The profile suites/networks/NAME.toml, or a file's path."""
    path = Path(name) if name.endswith(".toml") else NETWORKS / f"{name}.toml"
    if not path.is_file():
        raise ProfileError(f"no network profile '{name}' (profiles: {', '.join(names())})")
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{path}: {error}") from None
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        raise ProfileError(f"{path}: unknown key '{unknown[0]}' (keys: {', '.join(sorted(KEYS))})")

    def number(key: str, low: float, high: float, integer: bool = True, default: float | None = 0) -> float | None:
        value = raw.get(key, default)
        if value is None:
            return None
        kind = int if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind) or not low <= value <= high:
            what = "an integer" if integer else "a number"
            raise ProfileError(f"{path}: key '{key}' must be {what} in [{low:g}, {high:g}], got {value!r}")
        return value

    if not isinstance(raw.get("name", path.stem), str) or raw.get("name", path.stem) != path.stem:
        raise ProfileError(f"{path}: key 'name' must be the file's name, '{path.stem}'")
    proxy = raw.get("proxy", False)
    if not isinstance(proxy, bool):
        raise ProfileError(f"{path}: key 'proxy' must be true or false, got {proxy!r}")
    delay, jitter = number("delay_ms", 0, 10000), number("jitter_ms", 0, 10000)
    assert delay is not None and jitter is not None
    if (delay or jitter) and not proxy:
        raise ProfileError(f"{path}: delay_ms and jitter_ms need proxy = true (toxiproxy adds them)")
    if jitter > delay:
        raise ProfileError(f"{path}: key 'jitter_ms' ({jitter}) above delay_ms ({delay}): a negative delay")
    up, down = number("up_kbit", 8, 10_000_000, default=None), number("down_kbit", 8, 10_000_000, default=None)
    loss = number("loss_percent", 0, 50, integer=False)
    return Profile(
        name=path.stem,
        description=str(raw.get("description", "")),
        proxy=proxy,
        delay_ms=int(delay),
        jitter_ms=int(jitter),
        up_kbit=None if up is None else int(up),
        down_kbit=None if down is None else int(down),
        loss_percent=float(loss or 0),
        paper=raw.get("paper"),
    )
