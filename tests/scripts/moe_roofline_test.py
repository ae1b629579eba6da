"""scripts/moe_roofline.py against the DeepSeek-V4.1-Flash EP4 figures of performance-anchors.md."""
import unittest

import scripts_under_test  # noqa: F401  (puts scripts/ on sys.path)
import moe_roofline

MODEL_DIM, INTER_DIM, EXPERTS, TOPK = 5120, 2304, 96, 5
HBM_TBPS, PEAK_TFLOPS = 4.27, 1550


class MoeRooflineTest(unittest.TestCase):
    def test_one_expert_is_fp4_values_and_e8m0_scales_of_w1_and_w2(self):
        values = 3 * MODEL_DIM * INTER_DIM  # W1 is 2*inter x model_dim, W2 model_dim x inter
        self.assertEqual(moe_roofline.expert_weight_bytes(MODEL_DIM, INTER_DIM), values // 2 + values // 32)
        self.assertEqual(moe_roofline.expert_weight_bytes(MODEL_DIM, INTER_DIM), 18_800_640)

    def test_one_token_touches_five_experts_and_is_memory_bound_at_22_us(self):
        fields = moe_roofline.bucket_roofline(1, MODEL_DIM, INTER_DIM, TOPK, [5], HBM_TBPS, PEAK_TFLOPS)
        # 5 experts + 5120 FP8 activations + 160 scales + 5120 bf16 outputs
        self.assertEqual(fields["bytes"], 5 * 18_800_640 + 5120 + 160 + 10240)
        self.assertAlmostEqual(fields["roofline_us"], 22.0, delta=0.05)
        self.assertLess(fields["flops"] / (PEAK_TFLOPS * 1e6), fields["roofline_us"])

    def test_4096_tokens_are_compute_bound_at_935_us(self):
        fields = moe_roofline.bucket_roofline(4096, MODEL_DIM, INTER_DIM, TOPK, [EXPERTS], HBM_TBPS, PEAK_TFLOPS)
        self.assertAlmostEqual(fields["flops"] / 1e12, 1.4496, places=3)  # "~1.45 TFLOP"
        self.assertAlmostEqual(fields["roofline_us"], 935.19, delta=0.05)
        self.assertLess(fields["bytes"] / (HBM_TBPS * 1e6), fields["roofline_us"])

    def test_all_96_experts_are_about_1_81_gb(self):
        fields = moe_roofline.bucket_roofline(64, MODEL_DIM, INTER_DIM, TOPK, [EXPERTS], HBM_TBPS, PEAK_TFLOPS)
        self.assertAlmostEqual(fields["bytes"] / 1e9, 1.81, delta=0.005)
        self.assertAlmostEqual(fields["roofline_us"], fields["bytes"] / (HBM_TBPS * 1e6))  # memory-bound

    def test_routings_taken_in_turn_count_their_mean_bytes(self):
        # As `moetune bench --routings`: four and six experts, equally often, move five experts' bytes.
        mean = moe_roofline.bucket_roofline(1, MODEL_DIM, INTER_DIM, TOPK, [4, 6], HBM_TBPS, PEAK_TFLOPS)
        five = moe_roofline.bucket_roofline(1, MODEL_DIM, INTER_DIM, TOPK, [5], HBM_TBPS, PEAK_TFLOPS)
        self.assertEqual(mean["bytes"], five["bytes"])
        self.assertEqual(mean["flops"], five["flops"])
        self.assertAlmostEqual(mean["roofline_us"], five["roofline_us"])

    def test_percent_of_roofline(self):
        self.assertEqual(moe_roofline.roofline_pct(22.0, 44.0), 50.0)
        self.assertEqual(moe_roofline.roofline_pct(10.0, 10.0), 100.0)


if __name__ == "__main__":
    unittest.main()
