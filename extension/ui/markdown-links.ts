/**
 * The mark of a relative link in rendered Markdown (markdown.ts), apart from the renderer, which loads
 * only when a Markdown document is shown: the link names another resource of the server, whose URI the
 * attribute holds, and the view that shows it reads it in the Resources view (ContentBlock.vue).
 */
export const RESOURCE_LINK_ATTRIBUTE = 'data-resource-uri';
