"""The terminal UI of `agent chat` (SPEC §14).

live.py is the prompt-toolkit Application and imports nothing heavy, so the prompt is drawn
before the rest (repl.py: rich, pydantic, the session) is loaded. render.py and side_panel.py are
pure: events and state in, text out.
"""
