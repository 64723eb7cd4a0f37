import sys

from tinytui.cli import main

sys.exit(main())
