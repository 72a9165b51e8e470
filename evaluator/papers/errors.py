"""Typed errors of the paper reader. Each has a stable `code` that an API layer can put in its error body."""

from __future__ import annotations

from typing import ClassVar


class PaperError(Exception):
    """Base of every error the paper reader raises on purpose."""

    code: ClassVar[str] = "paper_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class BadDocument(PaperError):
    """The input is not a readable document of the kind it claims to be (a `.pdf` that is not a PDF, ...)."""

    code = "bad_document"


class DocumentTooLarge(PaperError):
    """The input is larger than the size limit; it was refused before being read in full."""

    code = "document_too_large"


class ExtractorNotConfigured(PaperError):
    """The LLM extractor was asked for but its configuration is incomplete (its key variable is unset)."""

    code = "extractor_not_configured"


class ExtractorUnavailable(PaperError):
    """The LLM endpoint could not be reached or answered with an HTTP error."""

    code = "extractor_unavailable"


class ExtractionFailed(PaperError):
    """The LLM never produced JSON that validates against the record schema within the allowed attempts."""

    code = "extraction_failed"
