#ifndef IMGSCALE_HEIF_API_H
#define IMGSCALE_HEIF_API_H

#include <libheif/heif.h>
#include <stddef.h>

/* libheif, opened on first use instead of linked: loading it (with libde265, x265,
   aom and dav1d behind it) costs every process about 5 ms before main - libde265
   builds tables at load - which is a tenth of a one-photo JPEG thumbnail. The shim
   calls libheif by its own names; they are redirected below to the pointers
   cheif_load fills. */
#define CHEIF_FUNCTIONS(X) \
    X(heif_context_add_XMP_metadata) \
    X(heif_context_add_exif_metadata) \
    X(heif_context_alloc) \
    X(heif_context_encode_image) \
    X(heif_context_free) \
    X(heif_context_get_encoder_for_format) \
    X(heif_context_get_number_of_top_level_images) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_set_maximum_image_size_limit) \
    X(heif_context_set_max_decoding_threads) \
    X(heif_context_write) \
    X(heif_decode_image) \
    X(heif_decoding_options_alloc) \
    X(heif_decoding_options_free) \
    X(heif_encoder_release) \
    X(heif_encoder_set_lossless) \
    X(heif_encoder_set_lossy_quality) \
    X(heif_encoder_set_parameter_integer) \
    X(heif_encoder_set_parameter_string) \
    X(heif_encoding_options_alloc) \
    X(heif_encoding_options_free) \
    X(heif_get_version) \
    X(heif_image_add_plane) \
    X(heif_image_create) \
    X(heif_image_get_bits_per_pixel_range) \
    X(heif_image_get_height) \
    X(heif_image_get_plane) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_color_profile_type) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_image_handle_get_luma_bits_per_pixel) \
    X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_content_type) \
    X(heif_image_handle_get_metadata_size) \
    X(heif_image_handle_get_raw_color_profile) \
    X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_is_premultiplied_alpha) \
    X(heif_image_handle_release) \
    X(heif_image_release) \
    X(heif_image_set_nclx_color_profile) \
    X(heif_image_set_raw_color_profile) \
    X(heif_nclx_color_profile_alloc) \
    X(heif_nclx_color_profile_free)

struct cheif_api {
#define CHEIF_POINTER(name) __typeof__(&name) name;
    CHEIF_FUNCTIONS(CHEIF_POINTER)
#undef CHEIF_POINTER
};
extern struct cheif_api cheif_api;

/* 0 once libheif is loaded (the first call loads it); -1 with the reason in err. */
int cheif_load(char *err, size_t errlen);

#ifndef CHEIF_API_DEFINITION
#define heif_context_add_XMP_metadata (cheif_api.heif_context_add_XMP_metadata)
#define heif_context_add_exif_metadata (cheif_api.heif_context_add_exif_metadata)
#define heif_context_alloc (cheif_api.heif_context_alloc)
#define heif_context_set_max_decoding_threads (cheif_api.heif_context_set_max_decoding_threads)
#define heif_context_encode_image (cheif_api.heif_context_encode_image)
#define heif_context_free (cheif_api.heif_context_free)
#define heif_context_get_encoder_for_format (cheif_api.heif_context_get_encoder_for_format)
#define heif_context_get_number_of_top_level_images (cheif_api.heif_context_get_number_of_top_level_images)
#define heif_context_get_primary_image_handle (cheif_api.heif_context_get_primary_image_handle)
#define heif_context_read_from_memory_without_copy (cheif_api.heif_context_read_from_memory_without_copy)
#define heif_context_set_maximum_image_size_limit (cheif_api.heif_context_set_maximum_image_size_limit)
#define heif_context_write (cheif_api.heif_context_write)
#define heif_decode_image (cheif_api.heif_decode_image)
#define heif_decoding_options_alloc (cheif_api.heif_decoding_options_alloc)
#define heif_decoding_options_free (cheif_api.heif_decoding_options_free)
#define heif_encoder_release (cheif_api.heif_encoder_release)
#define heif_encoder_set_lossy_quality (cheif_api.heif_encoder_set_lossy_quality)
#define heif_encoder_set_parameter_integer (cheif_api.heif_encoder_set_parameter_integer)
#define heif_get_version (cheif_api.heif_get_version)
#define heif_image_add_plane (cheif_api.heif_image_add_plane)
#define heif_image_create (cheif_api.heif_image_create)
#define heif_image_get_bits_per_pixel_range (cheif_api.heif_image_get_bits_per_pixel_range)
#define heif_image_get_height (cheif_api.heif_image_get_height)
#define heif_image_get_plane (cheif_api.heif_image_get_plane)
#define heif_image_get_plane_readonly (cheif_api.heif_image_get_plane_readonly)
#define heif_image_get_width (cheif_api.heif_image_get_width)
#define heif_image_handle_get_color_profile_type (cheif_api.heif_image_handle_get_color_profile_type)
#define heif_image_handle_get_height (cheif_api.heif_image_handle_get_height)
#define heif_image_handle_get_list_of_metadata_block_IDs (cheif_api.heif_image_handle_get_list_of_metadata_block_IDs)
#define heif_image_handle_get_luma_bits_per_pixel (cheif_api.heif_image_handle_get_luma_bits_per_pixel)
#define heif_image_handle_get_metadata (cheif_api.heif_image_handle_get_metadata)
#define heif_image_handle_get_metadata_content_type (cheif_api.heif_image_handle_get_metadata_content_type)
#define heif_image_handle_get_metadata_size (cheif_api.heif_image_handle_get_metadata_size)
#define heif_image_handle_get_raw_color_profile (cheif_api.heif_image_handle_get_raw_color_profile)
#define heif_image_handle_get_raw_color_profile_size (cheif_api.heif_image_handle_get_raw_color_profile_size)
#define heif_image_handle_get_width (cheif_api.heif_image_handle_get_width)
#define heif_image_handle_has_alpha_channel (cheif_api.heif_image_handle_has_alpha_channel)
#define heif_image_handle_is_premultiplied_alpha (cheif_api.heif_image_handle_is_premultiplied_alpha)
#define heif_image_handle_release (cheif_api.heif_image_handle_release)
#define heif_image_release (cheif_api.heif_image_release)
#define heif_image_set_raw_color_profile (cheif_api.heif_image_set_raw_color_profile)
#define heif_encoder_set_lossless (cheif_api.heif_encoder_set_lossless)
#define heif_image_set_nclx_color_profile (cheif_api.heif_image_set_nclx_color_profile)
#define heif_encoder_set_parameter_string (cheif_api.heif_encoder_set_parameter_string)
#define heif_encoding_options_alloc (cheif_api.heif_encoding_options_alloc)
#define heif_encoding_options_free (cheif_api.heif_encoding_options_free)
#define heif_nclx_color_profile_alloc (cheif_api.heif_nclx_color_profile_alloc)
#define heif_nclx_color_profile_free (cheif_api.heif_nclx_color_profile_free)
#endif

#endif
