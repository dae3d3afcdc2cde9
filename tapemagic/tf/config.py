"""``tf.config``: the few settings course code touches, for an eager CPU engine."""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "PhysicalDevice",
    "functions_run_eagerly",
    "list_logical_devices",
    "list_physical_devices",
    "run_functions_eagerly",
]


class PhysicalDevice(NamedTuple):
    """A device as ``tf.config.list_physical_devices`` describes it."""

    name: str
    device_type: str


_CPU = PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Accepted for compatibility: ``tf.function`` already runs eagerly here.

    Example:
        >>> run_functions_eagerly(True)
    """


def functions_run_eagerly() -> bool:
    """Always True (see :func:`run_functions_eagerly`)."""
    return True


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The one CPU tapemagic computes on; no GPU or TPU is ever listed.

    Example:
        >>> len(list_physical_devices("GPU")), list_physical_devices("CPU")[0].name
        (0, '/physical_device:CPU:0')
    """
    if device_type is None or device_type.upper() == "CPU":
        return [_CPU]
    return []


def list_logical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """As :func:`list_physical_devices`, with TensorFlow's logical device name."""
    return [
        PhysicalDevice(name="/device:CPU:0", device_type=d.device_type)
        for d in list_physical_devices(device_type)
    ]
