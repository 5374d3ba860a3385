"""MindSpore for PyTorch developers: runtime set-up, a ResNet-50 built like ``npulab.pytorch.resnet``, weight
conversion, the API pairs executed in both frameworks and fair step timing.

MindSpore's C++ logger reads ``GLOG_v`` once, when ``mindspore`` is first imported; importing any module of this
package sets it to 4 (errors only) first, unless the user set it, so no log line lands in a lesson or a page.
"""

import os

os.environ.setdefault("GLOG_v", "4")
