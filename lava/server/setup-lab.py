# SPDX-License-Identifier: GPL-2.0
#
# Run by lava/server/serve.sh in `lava-server manage shell`: the lab's
# user "bindlab" (superuser, no password) with an API token, the worker
# "lab-worker", device type "qemu" (no health check: the lab has none)
# and the devices of $BL_DEVICES on that worker, Good and Idle. Writes
# the user, its token and the worker's token to $BL_OUT as JSON.
import json
import os

from django.contrib.auth.models import User
from linaro_django_xmlrpc.models import AuthToken
from lava_scheduler_app.models import Device, DeviceType, Worker

user = User.objects.create_superuser("bindlab", "lab@bindlab.invalid", None)
token = AuthToken.objects.create(user=user, description="bindlab lab")
worker = Worker.objects.create(hostname="lab-worker", health=Worker.HEALTH_ACTIVE)
dtype = DeviceType.objects.create(name="qemu", disable_health_check=True)
for name in os.environ["BL_DEVICES"].split():
    Device.objects.create(hostname=name, device_type=dtype, worker_host=worker,
                          health=Device.HEALTH_GOOD, state=Device.STATE_IDLE)
with open(os.environ["BL_OUT"], "w") as out:
    json.dump({"user": user.username, "token": token.secret,
               "worker_token": worker.token}, out)
