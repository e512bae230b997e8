"""Locates the JVM jar bundled inside this package."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def jar_path() -> str:
    """Returns the absolute path of the bundled ``sparkpersist_2.13-<version>.jar``.

    Raises:
        FileNotFoundError: the package was installed without its jar (build it with
            ``make jar`` and reinstall with ``pip install ./python``).
    """
    jars = sorted(p for p in resources.files("sparkpersist").joinpath("jars").iterdir()
                  if p.name.startswith("sparkpersist_") and p.name.endswith(".jar"))
    if not jars:
        raise FileNotFoundError(
            "sparkpersist's jar is missing from the installed package. From the repository run "
            "`make jar` and then `pip install ./python`.")
    if len(jars) > 1:
        raise RuntimeError(f"Several sparkpersist jars are bundled ({[j.name for j in jars]}); reinstall the package.")
    return str(Path(str(jars[0])).resolve())
