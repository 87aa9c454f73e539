//! AS path verification with ASPAs (draft-ietf-sidrops-aspa-verification §5–§6):
//! Valid, Invalid or Unknown for an AS_PATH received from a customer, a lateral peer
//! or a provider.
