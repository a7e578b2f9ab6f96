"""The base of every settings section: an unknown key is an error, and so is an assignment
that does not validate."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
