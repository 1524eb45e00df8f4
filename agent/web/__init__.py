"""The browser table of ``trpg serve`` (agent.web.app): Starlette, Jinja2 templates, htmx with server-sent events."""
