"""Subagent type files in the shapes real repositories use (written for this suite): comma
strings, YAML and JSON lists, block scalars, `/agents`-wizard one-liners that strict YAML rejects,
CRLF, a BOM, no front matter, folder-per-agent, lower-case tool names, MCP and unknown tools.

Each entry: (path under `agents/`, text, expected name, expected tools (ours), expected model as
resolved with the default aliases, `None` meaning the parent's).
"""

from __future__ import annotations

SONNET, OPUS, HAIKU = "claude-sonnet-4-6", "claude-opus-4-6", "claude-haiku-4-5"
WIZARD = (
    "Use this agent after a change to the billing code. Examples:\\n\\n<example>\\nContext: "
    "the user edited invoices.py\\nuser: \"check my invoice change\"\\nassistant: \"I'll use "
    "the billing-checker agent\"\\n<commentary>\\nBilling code changed: review it.\\n"
    "</commentary>\\n</example>"
)

AGENTS: list[tuple[str, str, str, list[str], str | None]] = [
    ("code-reviewer.md",
     "---\nname: code-reviewer\ndescription: Reviews changed code for bugs.\ntools: Read, Grep, "
     "Glob\nmodel: sonnet\n---\nYou review code. Report bugs with file:line.\n",
     "code-reviewer", ["read_file", "grep", "glob"], SONNET),
    ("billing-checker.md",
     f"---\nname: billing-checker\ndescription: {WIZARD}\nmodel: inherit\ncolor: red\ntools: "
     "[\"Read\", \"Glob\", \"Grep\", \"Bash(*)\"]\n---\n\nYou check billing changes.\n",
     "billing-checker", ["read_file", "glob", "grep", "bash"], None),
    ("planner.md",
     "---\nname: planner\ndescription: |\n  Plans large refactors.\n  Writes no code.\ntools:\n"
     "  - Read\n  - Glob\nmodel: opus\n---\nPlan only.\n",
     "planner", ["read_file", "glob"], OPUS),
    ("folded.md",
     "---\nname: folded\ndescription: >\n  Folded description\n  over two lines.\ntools: Read\n"
     "---\nBody.\n",
     "folded", ["read_file"], None),
    ("crlf-agent.md",
     "---\r\nname: crlf-agent\r\ndescription: Written on Windows.\r\ntools: Read, Edit, Write\r\n"
     "model: haiku\r\n---\r\nYou fix scripts.\r\n",
     "crlf-agent", ["read_file", "edit_file", "write_file"], HAIKU),
    ("bom-agent.md",
     "\ufeff---\nname: bom-agent\ndescription: Saved with a byte-order mark.\ntools: Bash\n---\n"
     "Run checks.\n",
     "bom-agent", ["bash"], None),
    ("no-front-matter.md",
     "# Test fixer\n\nFixes failing tests one at a time.\n\nSteps: run, read, fix.\n",
     "no-front-matter", [], None),
    ("no-name.md",
     "---\ndescription: An agent without a name line.\ntools: Read, Grep\n---\nBody.\n",
     "no-name", ["read_file", "grep"], None),
    ("lower-case.md",
     "---\nname: lower-case\ndescription: Tools in lower case.\ntools: read, write, grep\n---\n"
     "Body.\n",
     "lower-case", ["read_file", "write_file", "grep"], None),
    ("with-web.md",
     "---\nname: with-web\ndescription: Researches online.\ntools: Read, WebFetch, WebSearch\n"
     "model: claude-sonnet-4-5\n---\nResearch.\n",
     "with-web", ["read_file"], "claude-sonnet-4-5"),
    ("mcp-user.md",
     "---\nname: mcp-user\ndescription: Uses GitHub over MCP.\ntools: Bash, "
     "mcp__github__get_issue, mcp__memory__*\n---\nBody.\n",
     "mcp-user", ["bash", "mcp__github__get_issue", "mcp__memory__*"], None),
    ("quoted.md",
     "---\nname: \"quoted\"\ndescription: \"Quoted: with a colon inside\"\ntools: 'Read, Glob'\n"
     "model: \"haiku\"\n---\nBody.\n",
     "quoted", ["read_file", "glob"], HAIKU),
    ("colon-desc.md",
     "---\nname: colon-desc\ndescription: Use when: the build fails: after a merge\ntools: Read\n"
     "---\nBody.\n",
     "colon-desc", ["read_file"], None),
    ("modes.md",
     "---\nname: modes\ndescription: Accepts edits.\ntools: Read, Edit\npermissionMode: "
     "acceptEdits\nmaxTurns: 12\n---\nEdit.\n",
     "modes", ["read_file", "edit_file"], None),
    ("planner-mode.md",
     "---\nname: planner-mode\ndescription: Read-only planner.\npermissionMode: plan\n---\nPlan.\n",
     "planner-mode", [], None),
    ("disallowed.md",
     "---\nname: disallowed\ndescription: Everything but the shell.\ndisallowedTools: Bash, "
     "Write\n---\nBody.\n",
     "disallowed", [], None),
    ("multiedit.md",
     "---\nname: multiedit\ndescription: Edits many files.\ntools: Read, MultiEdit, LS, TodoWrite"
     "\n---\nBody.\n",
     "multiedit", ["read_file", "edit_file", "glob", "todo_write"], None),
    ("task-user.md",
     "---\nname: task-user\ndescription: Delegates.\ntools: Task, Read, NotebookRead\n---\nBody.\n",
     "task-user", ["task", "read_file"], None),
    ("unknown-model.md",
     "---\nname: unknown-model\ndescription: A model alias nobody has.\nmodel: fable\n---\nBody.\n",
     "unknown-model", [], None),
    ("default-model.md",
     "---\nname: default-model\ndescription: Model default.\nmodel: default\ntools: Grep\n---\n"
     "Body.\n",
     "default-model", ["grep"], None),
    ("extra-keys.md",
     "---\nname: extra-keys\ndescription: Lots of keys we do not use.\ntools: Read\ncategory: qa\n"
     "memory: project\neffort: high\nskills:\n  - lint\nrelated:\n  agents: [a, b]\n---\nBody.\n",
     "extra-keys", ["read_file"], None),
    ("cjk.md",
     "---\nname: cjk\ndescription: 코드 리뷰 에이전트 (代码审查)\ntools: Read, Grep\n---\n"
     "리뷰하세요.\n",
     "cjk", ["read_file", "grep"], None),
    ("nested/AGENT.md",
     "---\ndescription: A folder-per-agent layout.\ntools: Glob\n---\nBody.\n",
     "nested", ["glob"], None),
    ("team/sub-agent.md",
     "---\nname: sub-agent\ndescription: Lives in a sub-folder.\ntools: Read\n---\nBody.\n",
     "sub-agent", ["read_file"], None),
    ("space-list.md",
     "---\nname: space-list\ndescription: Patterns with spaces.\ntools: Read, Bash(git diff:*), "
     "Bash(gh pr view:*)\n---\nBody.\n",
     "space-list", ["read_file", "bash"], None),
    ("empty-tools.md",
     "---\nname: empty-tools\ndescription: An empty tools line.\ntools:\n---\nBody.\n",
     "empty-tools", [], None),
    ("wizard-fail.md",
     "---\nname: wizard-fail\ndescription: Use this agent when: the user asks. Context: any.\n"
     "tools: Read, Grep\nmodel: sonnet\n---\nBody.\n",
     "wizard-fail", ["read_file", "grep"], SONNET),
    ("comment-line.md",
     "---\nname: comment-line\n# a comment in the front matter\ndescription: Has a YAML comment."
     "\ntools: [Read, Glob]\n---\nBody.\n",
     "comment-line", ["read_file", "glob"], None),
    ("unclosed.md",
     "---\nname: unclosed\ndescription: The front matter never closes.\n\nBody text.\n",
     "unclosed", [], None),
]
