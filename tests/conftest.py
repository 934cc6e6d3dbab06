"""What every test shares: rein's hook daemon is off, so the many `rein hook` processes the tests start
with temporary HOMEs answer in-process and leave no daemon behind. Tests of the daemon, and the
real-host tests, turn it on with their own private `REIN_RUNTIME_DIR` and stop it when done."""

import os

os.environ["REIN_HOOK_DAEMON"] = "off"
