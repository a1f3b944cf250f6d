"""Sphinx configuration of the skprivcov documentation.

Build with ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
Nothing here needs a network connection: no intersphinx, no remote thumbnails,
no binder links. sphinx-gallery runs every ``examples/plot_*.py``.
"""

import sys
from pathlib import Path

import skprivcov

# docs/_ext: registry_api, the API reference's list of covariance estimators
# made from the registry (docs/api.rst).
sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "skprivcov"
author = "the skprivcov developers"
copyright = "the skprivcov developers"
version = skprivcov.__version__
release = skprivcov.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "registry_api",
]

root_doc = "index"
source_suffix = {".rst": "restructuredtext"}
templates_path = ["_templates"]
# The templates are Jinja, not pages. The gallery's own by-products (notebooks,
# scripts, zips) are not rst and are never read as sources.
exclude_patterns = ["_build", "_templates", "Thumbs.db", ".DS_Store"]
language = "en"

# -- autodoc / autosummary ---------------------------------------------------

autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"
autoclass_content = "class"

# -- numpydoc ------------------------------------------------------------------

# The class template lists the members; numpydoc's own member tables would
# repeat them (and make autosummary warn about stubs it did not generate).
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True

# -- sphinx-gallery -------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # Execute every examples/plot_*.py; a failing example fails the build.
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "plot_gallery": "True",
    # Links from example code to this API reference (local, no network), and
    # the "Examples using ..." lists on the API pages.
    "doc_module": ("skprivcov",),
    "reference_url": {"skprivcov": None},
    "backreferences_dir": "generated/backreferences",
    "download_all_examples": False,
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
}

# -- HTML ---------------------------------------------------------------------------

html_theme = "alabaster"
html_title = f"skprivcov {release}"
html_static_path = []
html_theme_options = {
    "description": "Differentially private covariance, PCA, ridge regression and "
    "discriminant analysis for scikit-learn",
    "fixed_sidebar": True,
    # Wide enough for an 80-column code block next to the sidebar.
    "page_width": "1160px",
}


# -- members left out of the API pages ------------------------------------------


def _skip_member(app, what, name, obj, skip, options):
    """Leave out members that scikit-learn or Python document themselves.

    The estimators inherit ``get_params``, ``set_output``, the metadata-routing
    ``set_*_request`` methods and so on from scikit-learn, whose docstrings
    point into scikit-learn's own user guide. The fields of a named tuple are
    described in its Attributes section already.
    """
    target = getattr(obj, "fget", obj)
    module = getattr(target, "__module__", None) or ""
    if module.split(".")[0] in {"sklearn", "builtins"}:
        return True
    doc = getattr(obj, "__doc__", None) or ""
    if doc.startswith("Alias for field number"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
