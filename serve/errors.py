"""The one kind of error a request gets back: a message for the page and an HTTP status."""


class RequestError(ValueError):
    """A request the server refuses or cannot serve: ``status`` is its HTTP status (400 a bad
    request, 404 nothing there, 409 not now, 413 too large, 502 an agent failed, 503 full), the
    message says why in words a person can act on."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
