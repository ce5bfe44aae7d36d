import sys

from servebench.cli import main

sys.exit(main())
