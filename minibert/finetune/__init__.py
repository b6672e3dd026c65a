"""Fine-tuning: task heads on a pre-trained BERT (section 4 and Appendix A.3)."""
