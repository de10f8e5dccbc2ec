"""The memory inspector: what the memory holds, and how to fix it, in a browser.

Served at /ui by `worlddb serve --transport http` (next to /mcp, same token) and on its own by
`worlddb ui`. Rendered on the server with Starlette and Jinja2; every asset (templates, the
stylesheet) ships in this package and the pages run no script, so it works offline.

    access.py   Gate (the credentials; what each caller may see), sessions, Host/Origin/CSRF checks
    pages.py    Inspector: the pages and the actions, all through the memory API
    views.py    validity in words, and the layout of an entity's neighbourhood picture
    templates/  the Jinja2 templates; static/ the stylesheet
"""

from .access import Caller, Gate, Origins
from .pages import UI_PATH, Inspector

__all__ = ["UI_PATH", "Caller", "Gate", "Inspector", "Origins"]
