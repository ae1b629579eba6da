"""scripts/untuned_shapes.py: shapes and buckets of an AITER untuned CSV, errors naming FILE:LINE."""
import os
import unittest

from scripts_under_test import ROOT, ScratchDirTest
import exit_codes
import untuned_shapes

HEADER = "token,model_dim,inter_dim,expert,topk,act_type,use_g1u1\n"


class UntunedShapesTest(ScratchDirTest):
    def write(self, text):
        return self.write_file("shapes.csv", text)

    def assert_usage_error(self, path, where, words):
        super().assert_usage_error(lambda: untuned_shapes.read_shapes(path), where, words)

    def test_the_dsv41_file_is_one_shape_of_15_buckets(self):
        shapes = untuned_shapes.read_shapes(str(ROOT / "shapes" / "dsv41_flash_ep4_a8w4.csv"))
        self.assertEqual([shape.key() for shape in shapes], [(5120, 2304, 96, 5)])
        self.assertEqual(shapes[0].tokens, [2 ** i for i in range(15)])
        self.assertEqual(shapes[0].line, 2)

    def test_rows_group_by_shape_in_order_of_first_appearance(self):
        path = self.write(HEADER + "8,256,128,8,2,ActivationType.Silu,1\n"
                                   "1,512,128,8,2,ActivationType.Silu,1\n"
                                   "\n"
                                   "2,256,128,8,2,ActivationType.Silu,1\n"
                                   "2,256,128,8,2,ActivationType.Silu,1\n")
        shapes = untuned_shapes.read_shapes(path)
        self.assertEqual([(shape.key(), shape.tokens, shape.line) for shape in shapes],
                         [((256, 128, 8, 2), [2, 8], 2), ((512, 128, 8, 2), [1], 3)])

    def test_a_missing_column_is_reported_at_the_header(self):
        path = self.write("token,model_dim,inter_dim,expert\n1,256,128,8\n")
        self.assert_usage_error(path, f"{path}:1", "topk")

    def test_a_bad_number_names_its_line(self):
        path = self.write(HEADER + "1,256,128,8,2,ActivationType.Silu,1\n1,256,12x,8,2,ActivationType.Silu,1\n")
        self.assert_usage_error(path, f"{path}:3", "inter_dim '12x'")

    def test_a_gelu_row_is_refused(self):
        path = self.write(HEADER + "1,256,128,8,2,ActivationType.Gelu,1\n")
        self.assert_usage_error(path, f"{path}:2", "ActivationType.Silu")

    def test_topk_above_experts_is_refused(self):
        path = self.write(HEADER + "1,256,128,4,5,ActivationType.Silu,1\n")
        self.assert_usage_error(path, f"{path}:2", "topk 5")

    def test_a_header_only_file_has_no_shapes(self):
        path = self.write(HEADER)
        self.assert_usage_error(path, f"{path}:1", "no shape rows")

    def test_a_missing_file_cannot_be_opened(self):
        path = os.path.join(self.dir, "absent.csv")
        self.assert_usage_error(path, path, "cannot open")

    def test_token_lists(self):
        self.assertEqual(untuned_shapes.parse_token_list("16,1, 4,1"), [1, 4, 16])
        for bad in ("0", "1,,2", "x"):
            with self.assertRaises(exit_codes.ExitError) as caught:
                untuned_shapes.parse_token_list(bad)
            self.assertEqual(caught.exception.code, exit_codes.USAGE)


if __name__ == "__main__":
    unittest.main()
