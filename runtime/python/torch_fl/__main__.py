import sys

from torch_fl.cli import main

sys.exit(main())
