-- 0011: a model's card, as its authors publish it: where the weights are, the model it was fine-tuned from, the
-- licence of the weights and the paper. Kept beside the model (not in its row) so registering or updating a model
-- never touches it; every field is optional.

CREATE TABLE model_cards (
    model_slug  TEXT PRIMARY KEY REFERENCES models (slug) ON DELETE CASCADE,
    weights_url TEXT,
    base_model  TEXT,
    license     TEXT,
    paper_url   TEXT,
    updated_at  TEXT NOT NULL
) STRICT;
