"""The features that plug into the spine through the extension contract, one folder each
(docs/architecture.md). The spine imports none of them."""
