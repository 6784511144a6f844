"""``python -m tally`` runs the benchmark (tally.bench)."""
import sys

from .bench import main

sys.exit(main())
