"""features: the source format's features and the stages' extension points they use."""
