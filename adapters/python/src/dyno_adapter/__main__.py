import sys

from dyno_adapter.worker import main

sys.exit(main())
