"""Unit tests for benchkit's pure parts; no engine or model runs. `python3 -m unittest discover scripts/benchkit`.

Discovery from scripts/benchkit imports this package as top-level `tests`, so scripts/ is put on the path here for
`import benchkit` to work either way.
"""
import os
import sys

_scripts = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _scripts not in sys.path:
    sys.path.insert(0, _scripts)
