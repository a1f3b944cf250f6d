"""The API reference's list of covariance estimators, made from the registry.

``docs/api.rst`` holds the line :data:`MARKER` inside the autosummary of its
"Covariance estimators" section; at build time it stands for every registered
estimator that releases a covariance (``skprivcov.utils.registry()``, the
subclasses of ``skprivcov.base.ReleasedCovarianceMixin``), in the registry's
order. A class re-exported by ``skprivcov`` is listed under that name, any
other under ``skprivcov.covariance`` (as ``covariance.Name``: the section's
current module is ``skprivcov``). So a new mechanism's estimator is in the
reference once it is registered, and ``tests/test_common.py`` checks that
every registered estimator is listed, here or by hand.

Autosummary makes its stub pages from the files on disk, where the names are
not; :func:`_generate_stubs` makes theirs from the same list.
"""

import tempfile
from pathlib import Path

MARKER = ".. every registered covariance estimator (docs/_ext/registry_api.py)"


def covariance_estimators():
    """Autosummary entries of the registered covariance estimators."""
    import skprivcov
    from skprivcov.base import ReleasedCovarianceMixin
    from skprivcov.utils import registry

    names = []
    for name, entry in registry().items():
        if not issubclass(entry.estimator, ReleasedCovarianceMixin):
            continue
        names.append(name if name in skprivcov.__all__ else f"~{_public_path(entry)}")
    return names


def _public_path(entry):
    import skprivcov.covariance

    name = entry.name
    if getattr(skprivcov.covariance, name, None) is not entry.estimator:
        raise ValueError(
            f"{name} is registered but not exported by skprivcov.covariance"
        )
    # Relative to the section's ``currentmodule:: skprivcov`` (autosummary
    # refuses a name that repeats the current module).
    return f"covariance.{name}"


def expand(text):
    """``text`` (docs/api.rst) with :data:`MARKER` replaced by the list."""
    lines = text.splitlines(keepends=True)
    found = [i for i, line in enumerate(lines) if line.strip() == MARKER]
    if len(found) != 1:
        raise ValueError(f"docs/api.rst must hold the line {MARKER!r} once")
    (index,) = found
    indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    lines[index : index + 1] = [f"{indent}{name}\n" for name in covariance_estimators()]
    return "".join(lines)


def _fill(app, docname, source):
    if docname == "api":
        source[0] = expand(source[0])


def _generate_stubs(app):
    from sphinx.ext.autosummary.generate import generate_autosummary_docs

    entries = "".join(f"   {name}\n" for name in covariance_estimators())
    toctree = Path(app.srcdir) / "generated"
    text = (
        ".. currentmodule:: skprivcov\n\n"
        f".. autosummary::\n   :toctree: {toctree}\n\n{entries}"
    )
    with tempfile.TemporaryDirectory() as directory:
        listing = Path(directory) / "registered.rst"
        listing.write_text(text, encoding="utf-8")
        generate_autosummary_docs(
            [str(listing)],
            suffix=".rst",
            app=app,
            imported_members=app.config.autosummary_imported_members,
            overwrite=app.config.autosummary_generate_overwrite,
            encoding=app.config.source_encoding,
        )


def setup(app):
    # After autosummary's own stubs (priority 500), before any page is read.
    app.connect("builder-inited", _generate_stubs, priority=600)
    app.connect("source-read", _fill)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
