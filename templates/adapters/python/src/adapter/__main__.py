import sys

from dyno_protocol import serve

from adapter import ADAPTER

sys.exit(serve(ADAPTER))
