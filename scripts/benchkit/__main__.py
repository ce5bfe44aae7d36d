"""`python3 -m benchkit` (what scripts/bench runs)."""
import sys

from benchkit.cli import main

sys.exit(main())
