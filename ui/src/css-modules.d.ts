/** Stylesheets imported for their side effect (Vite bundles them; KaTeX's is loaded lazily). */
declare module '*.css';
