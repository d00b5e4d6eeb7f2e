"""``python -m exactsched`` runs the command line."""

import sys

from exactsched.cli import main

sys.exit(main())
