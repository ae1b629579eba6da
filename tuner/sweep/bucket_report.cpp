#include "sweep/bucket_report.h"

namespace moetune::sweep {

std::string_view status_name(BucketStatus s) {
    switch (s) {
        case BucketStatus::pending: return "pending";
        case BucketStatus::tuned: return "tuned";
        case BucketStatus::kept_existing: return "kept-existing";
        case BucketStatus::already_tuned: return "already-tuned";
        case BucketStatus::unsupported: return "unsupported";
        case BucketStatus::failed: return "failed";
    }
    return "?";
}

bool leaves_unfinished(BucketStatus s) {
    return s == BucketStatus::pending || s == BucketStatus::unsupported || s == BucketStatus::failed;
}

}  // namespace moetune::sweep
