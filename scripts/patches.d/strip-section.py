"""strip-section.py FILE TITLE NEXT: remove the reST section TITLE of FILE,
from its title up to the title NEXT (kept), for a patch that comes before
the feature the section describes; fails unless there is exactly one."""
import re
import sys

path, title, nxt = sys.argv[1:4]
text = open(path).read()
pat = r'^%s\n=+\n.*?(?=^%s\n=+\n)' % (re.escape(title), re.escape(nxt))
text, n = re.subn(pat, '', text, flags=re.S | re.M)
if n != 1:
    sys.exit('strip-section.py: %s: no section "%s" before "%s"' % (path, title, nxt))
open(path, 'w').write(text)
