import sys

from tinytui.launch import main

if __name__ == "__main__":
    sys.exit(main())
